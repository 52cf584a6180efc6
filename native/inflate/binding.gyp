{
  "targets": [
    {
      "target_name": "zonal_inflate",
      "sources": ["inflate.c"],
      "libraries": ["-ldeflate"],
      "cflags": ["-O2"],
      "defines": ["NAPI_VERSION=8"]
    }
  ]
}
