{
  "targets": [
    {
      "target_name": "zonal_fold",
      "sources": ["fold.c"],
      "cflags": ["-O2", "-ffp-contract=off", "-fno-fast-math"],
      "xcode_settings": { "OTHER_CFLAGS": ["-O2", "-ffp-contract=off", "-fno-fast-math"] },
      "defines": ["NAPI_VERSION=8"]
    }
  ]
}
