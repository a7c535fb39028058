import { Field } from './Field';

/** Grace periods a rotation offers (the API takes 0–86400 s); `none` names what 0 means for this secret. */
const periods = (none: string) => [
  { seconds: 0, label: none },
  { seconds: 3600, label: '1 hour (time to deploy the new one)' },
  { seconds: 21600, label: '6 hours' },
  { seconds: 86400, label: '24 hours (the most)' },
];

/** The choice of how long an old secret keeps working after a rotation (API keys, webhook signing secrets). */
export function GracePeriodField({
  label,
  hint,
  none,
  value,
  onChange,
}: {
  label: string;
  hint?: string;
  none: string;
  value: number;
  onChange: (seconds: number) => void;
}) {
  return (
    <Field label={label} hint={hint}>
      {(props) => (
        <select {...props} value={value} onChange={(e) => onChange(Number(e.target.value))}>
          {periods(none).map((g) => (
            <option key={g.seconds} value={g.seconds}>
              {g.label}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}
