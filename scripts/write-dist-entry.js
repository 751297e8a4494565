// `nest build` compiles src/ and migrations/ side by side (dist/src, dist/migrations);
// API.md §13 promises `node dist/main.js`, so this writes that one-line entry point.
const { writeFileSync } = require('node:fs');
writeFileSync('dist/main.js', "require('./src/main.js');\n");
