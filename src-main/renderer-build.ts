// The UI build lives in build/build.mjs (plain JavaScript: `npm install` and bin/promptledger.js
// run it before anything is compiled); the tests and benches build the UI through this name.
export { ensureRendererBuilt, rendererIsStale, type BuildOptions as RendererBuild } from '../build/build.mjs';
