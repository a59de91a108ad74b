// The kube32 pod SDK for AssemblyScript: the host functions of k32_app_abi
// (docs/abi.md) over strings and typed arrays, with no dependency but
// AssemblyScript itself. Reference: docs/assemblyscript.md.
//
//   import { Request, Response, serve } from "k32";
//
//   function handle(req: Request, res: Response): void {
//     res.send(200, "text/plain", "hello " + req.path + "\n");
//   }
//
//   export function k32_handle(): i32 {
//     return serve(handle);
//   }
import { Request } from "./request";
import { Response } from "./response";
import { enter, leave } from "./heap";

export * from "./errors";
export * from "./log";
export * from "./env";
export * from "./request";
export * from "./response";
export * from "./http";
export * from "./channel";
// The raw imports are the module "k32/sys": import * as sys from "k32/sys".

/** A request handler: it answers req through res. */
export type Handler = (req: Request, res: Response) => void;

/**
 * Runs handler for the request of the current k32_handle and returns what
 * k32_handle returns (0). What the callback allocated is freed when it
 * returns (docs/assemblyscript.md, "Memory").
 */
export function serve(handler: Handler): i32 {
  enter();
  handler(new Request(), new Response());
  leave();
  return 0;
}

/** A callback without arguments (k32_event, k32_init, k32_main). */
export type Callback = () => i32;

/** Runs callback and returns its result; what it allocated is freed, as with serve. */
export function run(callback: Callback): i32 {
  enter();
  const r = callback();
  leave();
  return r;
}
