// Small inline SVG icons (no icon font, nothing fetched); decorative, so hidden from screen readers.
type Props = { size?: number };

function Svg({ size = 20, d }: Props & { d: string }) {
  return (
    <svg class="icon" width={size} height={size} viewBox="0 0 24 24" aria-hidden="true" focusable="false">
      <path d={d} fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" />
    </svg>
  );
}

export const UploadIcon = (p: Props) => <Svg {...p} d="M12 16V4m0 0l-5 5m5-5l5 5M4 20h16" />;
export const PlusIcon = (p: Props) => <Svg {...p} d="M12 5v14M5 12h14" />;
export const DownloadIcon = (p: Props) => <Svg {...p} d="M12 4v12m0 0l-5-5m5 5l5-5M4 20h16" />;
export const BackIcon = (p: Props) => <Svg {...p} d="M15 18l-6-6 6-6" />;
export const LogoIcon = ({ size = 28 }: Props) => (
  <svg class="logo" width={size} height={size} viewBox="0 0 32 32" aria-hidden="true" focusable="false">
    <rect width="32" height="32" rx="7" fill="currentColor" />
    <path d="M9 10l7 13 7-13" fill="none" stroke="var(--logo-ink)" stroke-width="3" stroke-linecap="round" stroke-linejoin="round" />
  </svg>
);
