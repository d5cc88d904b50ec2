'use strict';
// Says in one line which Node.js print-api needs and which one ran, and exits 1, when the running
// Node.js is older than package.json's `engines.node` (it runs its TypeScript with Node's type stripping;
// older ones fail with ERR_UNKNOWN_FILE_EXTENSION or a SyntaxError per file). Run by the
// preinstall, prestart and pretest scripts and by .mocharc.cjs; plain CommonJS JavaScript of the
// oldest syntax, so that every Node.js can run it.
var fs = require('fs');
var path = require('path');

/** The oldest Node.js that runs print-api, from package.json (`">=22.20"`) as [major, minor, patch]. */
function requiredNode() {
  var pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8'));
  var range = String(pkg.engines && pkg.engines.node);
  var m = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(range.trim());
  if (!m) throw new Error('package.json engines.node must read ">=MAJOR.MINOR", not ' + range);
  return { range: range, version: [Number(m[1]), Number(m[2] || 0), Number(m[3] || 0)] };
}

function parts(version) {
  return String(version)
    .replace(/^v/, '')
    .split('.')
    .map(function (n) {
      return Number(n) || 0;
    });
}

/** The one line for a Node.js that is too old (`versions` is `process.versions`), or undefined when it will do. */
function nodeProblem(versions, execPath, doing) {
  var required = requiredNode();
  var have = parts(versions.node);
  for (var i = 0; i < 3; i++) {
    if ((have[i] || 0) > required.version[i]) return undefined;
    if ((have[i] || 0) < required.version[i])
      return (
        'print-api needs Node.js ' +
        required.range +
        ' (it runs TypeScript natively), but ' +
        (doing ? doing + ' ran on ' : 'this is ') +
        'Node.js ' +
        versions.node +
        (execPath ? ' (' + execPath + ')' : '') +
        '; put a newer node first on PATH (.nvmrc names the version the project uses)'
      );
  }
  return undefined;
}

/** Prints the line to stderr and exits 1 when this Node.js is too old; `doing` names the command (`npm test`). */
function exitUnlessSupported(doing) {
  var problem = nodeProblem(process.versions, process.execPath, doing);
  if (!problem) return;
  process.stderr.write(problem + '\n');
  process.exit(1);
}

module.exports = { requiredNode: requiredNode, nodeProblem: nodeProblem, exitUnlessSupported: exitUnlessSupported };

if (require.main === module) {
  // npm names the script it runs (preinstall, prestart, pretest): the command is `npm install`, `npm start`...
  var event = process.env.npm_lifecycle_event || '';
  exitUnlessSupported(event ? 'npm ' + event.replace(/^pre/, '') : undefined);
}
