/**
 * ALTCHA's `<altcha-widget>` for the sign-up page, loaded only there (a dynamic import): its external
 * build (no `<style>` element: its stylesheet is a file, as the CSP wants) and its PBKDF2 solver
 * worker, built as a file under /assets (worker-src falls back to script-src 'self'; no blob: URL).
 */
import 'altcha/external';
import 'altcha/altcha.css';
import workerUrl from 'altcha/workers/pbkdf2?worker&url';

for (const algorithm of ['PBKDF2/SHA-256', 'PBKDF2/SHA-384', 'PBKDF2/SHA-512'])
  $altcha.algorithms.set(algorithm, () => new Worker(workerUrl));

$altcha.defaults.set({
  // A solve is over when it is found: ALTCHA would otherwise pad it to 500 ms.
  minDuration: 0,
  // Its logo is a link inside aria-hidden (focusable but hidden from screen readers); the footer keeps the attribution.
  hideLogo: true,
  // Pointer and scroll recording for ALTCHA's own service, which Gatehouse does not ask for.
  humanInteractionSignature: false,
});
