/**
 * The real widget (/widget/v1/gatehouse.js, widget/src/gatehouse.ts), loaded into the dashboard on
 * demand for the keys page's "Try it": the same script a customer's page loads, under the
 * dashboard's CSP (src/dashboard/dashboard-pages.ts: `worker-src blob:` for its solvers).
 */
export interface GatehouseGlobal {
  readonly version: 'v1';
  render(target?: Element | Document): void;
}

declare global {
  interface Window {
    Gatehouse?: GatehouseGlobal;
  }
}

export const WIDGET_SCRIPT = '/widget/v1/gatehouse.js';

let loading: Promise<GatehouseGlobal> | undefined;

/** Adds the widget's script to the page once; resolves with its `window.Gatehouse`. */
export function loadWidget(): Promise<GatehouseGlobal> {
  loading ??= new Promise<GatehouseGlobal>((resolve, reject) => {
    const script = document.createElement('script');
    script.src = WIDGET_SCRIPT;
    script.onload = () => (window.Gatehouse ? resolve(window.Gatehouse) : reject(new Error('The widget script did not start.')));
    script.onerror = () => {
      loading = undefined;
      script.remove();
      reject(new Error('The widget script could not be loaded.'));
    };
    document.head.append(script);
  });
  return loading;
}
