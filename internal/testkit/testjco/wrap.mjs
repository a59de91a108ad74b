// Makes components with jco (wasm-tools' component embed, component new
// and its text parser), as docs/components.md tells users to:
//   node wrap.mjs wrap WIT WORLD CORE OUT [ADAPTER]
//   node wrap.mjs parse WAT OUT
// ADAPTER is "reactor" for jco's WASI preview 1 reactor adapter.
// jco embed's --wit reads no file under node 20 (jco 1.35.0), so the WIT
// goes in as source through jco's API, which the CLI calls too.
import { readFile, writeFile } from "node:fs/promises";
import { componentEmbed, componentNew, parse } from "@bytecodealliance/jco";

const [, , cmd, ...args] = process.argv;
if (cmd === "parse") {
  const [wat, out] = args;
  await writeFile(out, await parse(await readFile(wat, "utf8")));
} else {
  const [wit, world, core, out, adapter] = args;
  const embedded = await componentEmbed({
    binary: await readFile(core),
    witSource: await readFile(wit, "utf8"),
    world,
  });
  const adapters = [];
  if (adapter === "reactor") {
    const lib = new URL("node_modules/@bytecodealliance/jco/lib/", import.meta.url);
    adapters.push(["wasi_snapshot_preview1", await readFile(new URL("wasi_snapshot_preview1.reactor.wasm", lib))]);
  }
  await writeFile(out, await componentNew(embedded, adapters));
}
