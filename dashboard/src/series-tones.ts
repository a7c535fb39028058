/**
 * What a line in a chart means, drawn the same in every chart: its colour and its dash pattern
 * both say it, so the lines are told apart without colour too. Each colour has at least 3:1
 * against the white panel (WCAG 1.4.11).
 */
export const TONES = {
  /** Answered, solved, valid. */
  good: { colour: '#1e6b34', dash: [] },
  /** Refused, failed, invalid. */
  bad: { colour: '#b3261e', dash: [8, 4] },
  /** Neither: handed out, redirected. */
  neutral: { colour: '#1f5fbf', dash: [2, 3] },
  /** The server's own error. */
  fault: { colour: '#6b3fa0', dash: [12, 3, 3, 3] },
} as const satisfies Record<string, { colour: string; dash: readonly number[] }>;
export type Tone = keyof typeof TONES;
