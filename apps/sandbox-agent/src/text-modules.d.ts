/** Text files the agent imports whole (protocol.sh): esbuild's `text` loader in the bundle, a Vite plugin in tests. */
declare module '*.sh' {
  const text: string;
  export default text;
}
