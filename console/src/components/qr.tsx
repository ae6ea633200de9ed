import { useEffect, useState } from 'preact/hooks';

/** A QR code of a short link (the `qrcode` library, loaded when first needed). */
export function QrCode({ text }: { text: string }) {
  const [src, setSrc] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    void import('qrcode').then(async (qr) => {
      const url = await qr.toDataURL(text, { margin: 2, width: 192, errorCorrectionLevel: 'M' });
      if (live) setSrc(url);
    });
    return () => {
      live = false;
    };
  }, [text]);
  if (!src) return <div class="qr placeholder" aria-hidden="true" />;
  return (
    <figure class="qr">
      <img src={src} width={192} height={192} alt={`QR code of ${text}`} />
      <figcaption>
        <a href={src} download="svc-link-qr.png">
          Download QR code
        </a>
      </figcaption>
    </figure>
  );
}
