// What `npm start` runs: checks the Node version before anything else loads, then starts the service (main.ts).
// It has no static import on purpose: ESM evaluates those first, and on an older Node a dependency would crash
// with an obscure error before this check could say what is wrong.
const REQUIRED_MAJOR = 24;
const major = Number(process.versions.node.split('.')[0]);
if (major < REQUIRED_MAJOR) {
  process.stderr.write(
    `Carshare needs Node ${REQUIRED_MAJOR}; this is Node ${process.versions.node}.\n` +
      `Run it with \`npm install\` then \`npm start\`: npm install brings Node ${REQUIRED_MAJOR} into ` +
      'node_modules, and npm start uses it.\n',
  );
  process.exit(1);
}
await import('./main.js');

export {};
