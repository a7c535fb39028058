import { saveFile } from '../save-file';
import { CopyButton } from './CopyButton';

/** The ten recovery codes, shown once: each signs in once in place of a code from the app. */
export function RecoveryCodes({ codes, email }: { codes: readonly string[]; email: string }) {
  const text = `Gatehouse recovery codes for ${email}\nEach works once, in place of a code from your authenticator app.\n\n${codes.join('\n')}\n`;
  return (
    <div className="recovery">
      <p className="warning">
        Save these recovery codes now: they are not shown again. Each one signs you in once if you lose your authenticator app or passkey.
      </p>
      <ol className="recovery-codes" aria-label="Recovery codes">
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ol>
      <p className="actions">
        <CopyButton text={codes.join('\n')} label="Copy the codes" />
        <button type="button" onClick={() => saveFile(new Blob([text], { type: 'text/plain' }), 'gatehouse-recovery-codes.txt')}>
          Download the codes
        </button>
      </p>
    </div>
  );
}
