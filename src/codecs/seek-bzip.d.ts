/** seek-bzip ships no types: the one function codecs/zarr.ts calls. */
declare module 'seek-bzip' {
  const Bunzip: { decode(input: Buffer, output?: Buffer): Buffer };
  export default Bunzip;
}
