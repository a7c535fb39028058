import { resolve } from 'node:path';

/**
 * Where `npm run build` puts the widget (widget/vite.config.mts): the same file from src/ (tests,
 * ts-node) and from dist/ (`npm start`, the Docker image).
 */
export const WIDGET_SCRIPT_PATH = resolve(__dirname, '../../dist/widget/gatehouse.js');
