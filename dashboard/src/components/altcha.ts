/**
 * ALTCHA's `<altcha-widget>` for the sign-up page, loaded only there (a dynamic import): its external
 * build (no `<style>` element: its stylesheet is a file, as the CSP wants) and its solver worker,
 * built as a file under /assets (worker-src falls back to script-src 'self'; no blob: URL).
 */
import 'altcha/external';
import 'altcha/altcha.css';
import workerUrl from 'altcha/worker?worker&url';

/**
 * ALTCHA splits the search between workers and posts the others an abort once one finds the number;
 * in Chromium that message waits behind the worker's digest loop, so each solve lasted as long as the
 * slowest share. Terminating the worker, and answering what an aborted worker answers (null), ends
 * the search when it is found (as widget/src/gatehouse.ts does).
 */
class PromptlyAbortedWorker extends Worker {
  override postMessage(message: unknown, options?: StructuredSerializeOptions | Transferable[]): void {
    if ((message as { type?: unknown } | null)?.type !== 'abort') return super.postMessage(message, options as StructuredSerializeOptions);
    this.terminate();
    this.dispatchEvent(new MessageEvent('message', { data: null }));
  }
}

// After the import above, which installs ALTCHA's own factory (a worker.js beside the module).
globalThis.altchaCreateWorker = () => new PromptlyAbortedWorker(workerUrl);
