// SPDX-License-Identifier: AGPL-3.0-or-later
//
// The official MCP TypeScript SDK's client against `strudel-jam --mcp`
// (issue 34), for tests/test-mcp.c and bench/mcp. It connects over stdio
// (Client + StdioClientTransport: initialize and notifications/initialized),
// then runs a plan of steps and prints one JSON line per step on stdout:
//
//   node jam.mjs STRUDEL_JAM CLIENT_NAME 'PLAN'
//
// PLAN is a JSON array of steps:
//   {"list": "tools"} / {"list": "resources"}   tools/list, resources/list
//   {"tool": NAME, "arguments": {...}}           tools/call
//   {"tool": "apply_strudel_change", "code": C}  read_code for the hash, then a full_code change
//   {"resource": URI}                            resources/read
//   {"repeat": N, "step": STEP}                  N times, with each time in milliseconds
// Each line is {"step": i, "ok": true, "result": ..., "ms": ...} (the call's
// round trip in the client; an apply's without its read_code) or
// {"step": i, "ok": false, "error": {"code": ..., "message": ...}}. The first
// line is {"initialized": {...}} with the server's version and protocol.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [command, clientName, planText] = process.argv.slice(2);
const plan = JSON.parse(planText ?? '[]');

// The whole environment: the server must find the test's private bus.
const transport = new StdioClientTransport({
  command,
  args: ['--mcp'],
  env: { ...process.env },
  stderr: 'inherit',
});
const client = new Client({ name: clientName, version: '1.0.0' });
// Tool calls may wait for the musician's answer: no SDK timeout under ten minutes.
const options = { timeout: 600000 };

function print(object) {
  process.stdout.write(JSON.stringify(object) + '\n');
}

// Where a step's time starts: an apply's read_code for the hash is not timed.
let stepStart = 0;

async function run(step) {
  if (step.list === 'tools')
    return await client.listTools(undefined, options);
  if (step.list === 'resources')
    return await client.listResources(undefined, options);
  if (step.resource)
    return await client.readResource({ uri: step.resource }, options);
  if (step.tool === 'apply_strudel_change' && step.code !== undefined) {
    const read = await client.callTool({ name: 'read_code', arguments: {} }, undefined, options);
    const hash = read.structuredContent?.hash;
    stepStart = performance.now();
    return await client.callTool({
      name: 'apply_strudel_change',
      arguments: { baseHash: hash, change: { kind: 'full_code', code: step.code }, ...(step.policy ? { policy: step.policy } : {}) },
    }, undefined, options);
  }
  if (step.tool)
    return await client.callTool({ name: step.tool, arguments: step.arguments ?? {} }, undefined, options);
  throw new Error(`unknown step ${JSON.stringify(step)}`);
}

try {
  await client.connect(transport);
  print({ initialized: { server: client.getServerVersion(), capabilities: client.getServerCapabilities() } });

  for (let i = 0; i < plan.length; i++) {
    const step = plan[i];
    const times = step.repeat ?? 1;
    const inner = step.repeat ? step.step : step;
    for (let n = 0; n < times; n++) {
      stepStart = performance.now();
      try {
        const result = await run(inner);
        print({ step: i, ok: true, ms: performance.now() - stepStart, result });
      } catch (error) {
        print({ step: i, ok: false, ms: performance.now() - stepStart, error: { code: error.code ?? null, message: String(error.message ?? error) } });
      }
    }
  }
} finally {
  await client.close();
}
