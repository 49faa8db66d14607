// The provisioning URL as a PNG QR code, 256 px, for authenticator apps to scan.
import QRCode from 'qrcode';

export function qrCodePng(text: string): Promise<Buffer> {
  return QRCode.toBuffer(text, { type: 'png', width: 256, margin: 2, errorCorrectionLevel: 'M' });
}
