import { useEffect, useState } from 'react';

/** `text` (an otpauth:// URL) as a QR code to scan; the library is loaded only where one is drawn. */
export function QrCode({ text, label }: { text: string; label: string }) {
  const [drawn, setDrawn] = useState<{ text: string; url: string } | null>(null);
  useEffect(() => {
    let live = true;
    void import('qrcode').then(({ toDataURL }) =>
      toDataURL(text, { errorCorrectionLevel: 'M', margin: 2, width: 192 }).then((url) => {
        if (live) setDrawn({ text, url });
      }),
    );
    return () => {
      live = false;
    };
  }, [text]);
  if (drawn?.text !== text) return <p role="status">Drawing the QR code…</p>;
  return <img className="qr" src={drawn.url} alt={label} width={192} height={192} />;
}
