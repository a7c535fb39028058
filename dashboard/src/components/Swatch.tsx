import { Tone, TONES } from '../series-tones';

/** A short stretch of a chart's line, in its tone's colour and dash, for a legend. */
export function Swatch({ tone }: { tone: Tone }) {
  const { colour, dash } = TONES[tone];
  return (
    <svg className="swatch" width="24" height="6" viewBox="0 0 24 6" aria-hidden="true">
      <line x1="0" y1="3" x2="24" y2="3" stroke={colour} strokeWidth="3" strokeDasharray={dash.length > 0 ? dash.join(' ') : undefined} />
    </svg>
  );
}
