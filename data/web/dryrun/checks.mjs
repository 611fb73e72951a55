// SPDX-License-Identifier: AGPL-3.0-or-later
//
// The static checks of a dry-run, before anything is evaluated, so that all
// the problems of a piece of code come back at once rather than the first
// one the REPL would throw:
//
//   syntax   the JavaScript does not parse (acorn, with the options of
//            @strudel/transpiler)
//   compile  free identifiers that exist nowhere (neither declared in the
//            code nor in the page's runtime scope), methods that no pattern
//            has, and mini-notation strings that krill cannot parse
//
// Lines and columns are 1-based, in the user's code.

import { parse as parseJs, getLineInfo } from 'acorn';
import { walk } from 'estree-walker';
import { parse as parseMini } from '@strudel/mini';

// The transpiler's parse options (@strudel/transpiler, transpiler.mjs).
const ACORN_OPTIONS = { ecmaVersion: 2022, allowAwaitOutsideFunction: true, locations: true };

// Browser globals that code may use in the page without Strudel knowing
// them. They are fine statically; at run time most are inert stand-ins.
const BROWSER_GLOBALS = [
  'window', 'self', 'document', 'navigator', 'location', 'localStorage', 'sessionStorage', 'fetch',
  'performance', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'requestAnimationFrame',
  'cancelAnimationFrame', 'queueMicrotask', 'structuredClone', 'TextEncoder', 'TextDecoder', 'URL',
  'URLSearchParams', 'Blob', 'Image', 'AudioContext', 'OfflineAudioContext', 'AudioWorkletNode',
  'GainNode', 'AudioBuffer', 'Worker', 'alert', 'prompt', 'confirm', 'atob', 'btoa', 'crypto',
  'devicePixelRatio', 'innerWidth', 'innerHeight', 'matchMedia', 'CustomEvent', 'Event', 'console',
  'arguments', 'undefined',
];

// Receivers whose methods are plain JavaScript, never pattern methods.
const JS_NAMESPACES = new Set([
  'Math', 'JSON', 'Object', 'Array', 'Number', 'String', 'Boolean', 'Symbol', 'BigInt', 'Date', 'RegExp',
  'Promise', 'Reflect', 'Proxy', 'Intl', 'Map', 'Set', 'WeakMap', 'WeakSet', 'Error', 'console', 'Atomics',
  'ArrayBuffer', 'DataView', 'Float32Array', 'Float64Array', 'Int8Array', 'Int16Array', 'Int32Array',
  'Uint8Array', 'Uint16Array', 'Uint32Array', 'window', 'globalThis', 'document', 'navigator',
  'performance', 'localStorage', 'crypto',
]);

function builtinMethodNames() {
  const names = new Set();
  const protos = [Object.prototype, Array.prototype, String.prototype, Number.prototype, Function.prototype,
    Promise.prototype, Map.prototype, Set.prototype, RegExp.prototype, Date.prototype, Boolean.prototype,
    Symbol.prototype, Error.prototype];
  for (const proto of protos) {
    for (const name of Object.getOwnPropertyNames(proto)) names.add(name);
  }
  return names;
}

// K(...) and x.K(...): a kabelsalat audio graph (see @strudel/transpiler).
function isKabelCall(node) {
  if (node.type !== 'CallExpression') return false;
  const callee = node.callee.type === 'ChainExpression' ? node.callee.expression : node.callee;
  if (callee.type === 'MemberExpression') return !callee.computed && callee.property?.name === 'K';
  return callee.type === 'Identifier' && callee.name === 'K';
}

// The pattern expressions inside a kabelsalat graph: arguments of S(...).
function patternsInKabel(graph) {
  const found = [];
  walk(graph, {
    enter(node) {
      if (node.type !== 'CallExpression') return;
      const callee = node.callee;
      const isS = (callee.type === 'Identifier' && callee.name === 'S') ||
        (callee.type === 'MemberExpression' && !callee.computed && callee.property?.name === 'S');
      if (isS) {
        found.push(...node.arguments);
        this.skip();
      }
    },
  });
  return found;
}

// A free identifier: an Identifier node that is read or written as a
// variable, not a property name, a label, a key or a binding.
function isReference(node, parent, prop) {
  if (!parent) return true;
  switch (parent.type) {
    case 'MemberExpression':
      return prop !== 'property' || parent.computed;
    case 'Property':
    case 'MethodDefinition':
    case 'PropertyDefinition':
      return prop !== 'key' || parent.computed;
    case 'LabeledStatement':
    case 'BreakStatement':
    case 'ContinueStatement':
      return false;
    case 'MetaProperty':
      return false;
    default:
      return true;
  }
}

// Every name a pattern binds (destructuring included).
function bindingNames(pattern, out) {
  if (!pattern) return;
  switch (pattern.type) {
    case 'Identifier':
      out.add(pattern.name);
      break;
    case 'ObjectPattern':
      for (const p of pattern.properties) bindingNames(p.type === 'RestElement' ? p.argument : p.value, out);
      break;
    case 'ArrayPattern':
      for (const e of pattern.elements) bindingNames(e, out);
      break;
    case 'RestElement':
      bindingNames(pattern.argument, out);
      break;
    case 'AssignmentPattern':
      bindingNames(pattern.left, out);
      break;
    default:
      break;
  }
}

// Declarations anywhere in the code count everywhere: scoping mistakes are
// left to the evaluation, but a name the code never declares is certain.
function collectDeclarations(ast) {
  const declared = new Set();
  const members = new Set();
  walk(ast, {
    enter(node) {
      switch (node.type) {
        case 'VariableDeclarator':
          bindingNames(node.id, declared);
          break;
        case 'FunctionDeclaration':
        case 'FunctionExpression':
        case 'ArrowFunctionExpression':
          if (node.id) declared.add(node.id.name);
          for (const param of node.params) bindingNames(param, declared);
          break;
        case 'ClassDeclaration':
        case 'ClassExpression':
          if (node.id) declared.add(node.id.name);
          break;
        case 'CatchClause':
          bindingNames(node.param, declared);
          break;
        case 'Property':
        case 'MethodDefinition':
        case 'PropertyDefinition':
          if (!node.computed && node.key.type === 'Identifier') members.add(node.key.name);
          if (!node.computed && node.key.type === 'Literal') members.add(String(node.key.value));
          break;
        case 'AssignmentExpression':
          if (node.left.type === 'MemberExpression' && !node.left.computed) members.add(node.left.property.name);
          if (node.left.type === 'MemberExpression' && node.left.computed && node.left.property.type === 'Literal') {
            members.add(String(node.left.property.value));
          }
          break;
        case 'CallExpression': {
          // register('name', …) and register(['a', 'b'], …) add pattern methods.
          const callee = node.callee;
          const name = callee.type === 'Identifier' ? callee.name : null;
          const arg = node.arguments[0];
          if ((name === 'register' || name === 'registerControl' || name === 'createParam') && arg) {
            if (arg.type === 'Literal' && typeof arg.value === 'string') members.add(arg.value);
            if (arg.type === 'ArrayExpression') {
              for (const e of arg.elements) if (e?.type === 'Literal' && typeof e.value === 'string') members.add(e.value);
            }
          }
          if (name === 'createParams') {
            for (const a of node.arguments) if (a.type === 'Literal' && typeof a.value === 'string') members.add(a.value);
          }
          break;
        }
        default:
          break;
      }
    },
  });
  return { declared, members };
}

// The strings @strudel/transpiler turns into mini-notation: double-quoted
// literals and untagged template literals, outside `// mini-off` ranges.
function miniDisabledRanges(comments, end) {
  const ranges = [];
  const stack = [];
  for (const comment of comments) {
    const value = comment.value.trim();
    if (value.startsWith('mini-off')) stack.push(comment.start);
    else if (value.startsWith('mini-on')) ranges.push([stack.pop(), comment.end]);
  }
  while (stack.length) ranges.push([stack.pop(), end]);
  return ranges;
}

function miniStrings(ast, comments, code) {
  const disabled = miniDisabledRanges(comments, code.length);
  const isDisabled = (offset) => disabled.some(([from, to]) => offset >= from && offset < to);
  const found = [];
  walk(ast, {
    enter(node, parent) {
      if (node.type === 'TaggedTemplateExpression') {
        this.skip();
        return;
      }
      if (node.type === 'Literal' && typeof node.value === 'string' && node.raw[0] === '"') {
        if (!isDisabled(node.start)) {
          // Exact positions when the literal holds no escapes.
          const exact = node.raw.slice(1, -1) === node.value;
          found.push({ value: node.value, start: node.start, exact });
        }
      } else if (node.type === 'TemplateLiteral' && parent?.type !== 'TaggedTemplateExpression') {
        if (!isDisabled(node.start)) {
          found.push({ value: node.quasis[0].value.raw, start: node.start, exact: node.quasis.length === 1 });
        }
      }
    },
  });
  return found;
}

function position(code, offset) {
  const { line, column } = getLineInfo(code, Math.max(0, Math.min(offset, code.length)));
  return { line, column: column + 1 };
}

function checkMini(code, strings) {
  const errors = [];
  for (const { value, start, exact } of strings) {
    try {
      parseMini(`"${value}"`);
    } catch (error) {
      // krill's offsets count the opening quote, like the user's code does
      // from the literal's start.
      const inner = error?.location?.start?.offset ?? 0;
      const { line, column } = position(code, exact ? start + inner : start);
      errors.push({ message: String(error?.message ?? error), line, column, text: value });
    }
  }
  return errors;
}

/**
 * Checks code before it is evaluated.
 *
 * @param {string} code the user's code
 * @param {{ isKnownGlobal: (name: string) => boolean, isKnownMethod: (name: string) => boolean }} scope
 * @returns {null | object} null when clean, else the rejection (without id)
 */
export function checkCode(code, scope) {
  const comments = [];
  let ast;
  try {
    ast = parseJs(code, { ...ACORN_OPTIONS, onComment: comments });
  } catch (error) {
    const loc = error?.loc ?? position(code, error?.pos ?? 0);
    return {
      ok: false,
      phase: 'syntax',
      message: String(error?.message ?? error),
      line: loc.line,
      column: (error?.loc ? loc.column + 1 : loc.column),
      unknownSymbols: [],
      miniErrors: [],
    };
  }

  const { declared, members } = collectDeclarations(ast);
  const builtins = builtinMethodNames();
  const browser = new Set(BROWSER_GLOBALS);
  const unknown = [];
  const seen = new Set();
  const report = (name, kind, offset) => {
    const key = `${kind}:${name}:${offset}`;
    if (seen.has(key)) return;
    seen.add(key);
    unknown.push({ name, kind, ...position(code, offset) });
  };

  const check = (root) =>
    walk(root, {
      enter(node, parent, prop) {
        if (isKabelCall(node)) {
          // K(graph) is turned into a string for kabelsalat by the
          // transpiler: only the S(...) patterns inside are JavaScript.
          // A bare K is no variable: the transpiler turns K(…) into worklet(…).
          if (node.callee.type !== 'Identifier') check(node.callee);
          node.arguments.slice(1).forEach(check);
          if (node.arguments[0]) patternsInKabel(node.arguments[0]).forEach(check);
          this.skip();
          return;
        }
        if (node.type === 'Identifier' && isReference(node, parent, prop)) {
          const { name } = node;
          if (!declared.has(name) && !browser.has(name) && !scope.isKnownGlobal(name)) {
            report(name, 'global', node.start);
          }
        }
        if (node.type === 'CallExpression' && node.callee.type === 'MemberExpression' && !node.callee.computed) {
          const { object, property } = node.callee;
          const name = property.name;
          const plainJs =
            (object.type === 'Identifier' && JS_NAMESPACES.has(object.name) && !declared.has(object.name)) ||
            object.type === 'ArrayExpression' ||
            object.type === 'ObjectExpression' ||
            (object.type === 'Literal' && (typeof object.value !== 'string' || object.raw[0] !== '"')) ||
            object.type === 'TaggedTemplateExpression';
          const known = plainJs
            ? true
            : scope.isKnownMethod(name) || members.has(name) || builtins.has(name);
          if (!known) report(name, 'method', property.start);
        }
      },
    });
  check(ast);

  const miniErrors = checkMini(code, miniStrings(ast, comments, code));
  if (unknown.length === 0 && miniErrors.length === 0) {
    return null;
  }

  unknown.sort((a, b) => a.line - b.line || a.column - b.column);
  const describe = (u) =>
    u.kind === 'method' ? `unknown method .${u.name}() at ${u.line}:${u.column}` : `unknown name ${u.name} at ${u.line}:${u.column}`;
  const problems = [
    ...unknown.map((u) => ({ ...u, text: describe(u) })),
    ...miniErrors.map((e) => ({ ...e, text: `mini-notation error at ${e.line}:${e.column}: ${e.message}` })),
  ].sort((a, b) => a.line - b.line || a.column - b.column);
  const first = problems[0];
  return {
    ok: false,
    phase: 'compile',
    message: problems.map((p) => p.text).join('; '),
    line: first.line,
    column: first.column,
    unknownSymbols: unknown,
    miniErrors,
  };
}
