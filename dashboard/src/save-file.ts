/** Hands `file` to the browser as a download named `name` (a link clicked, its object URL revoked after). */
export function saveFile(file: Blob, name: string): void {
  const url = URL.createObjectURL(file);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // The download has started with the click; the URL is needed no longer.
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
