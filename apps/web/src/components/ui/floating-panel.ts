/**
 * Where and how the console's Radix floating panels (menus, popovers) open: under their trigger's
 * start edge, kept 8 px inside the viewport, so a 390 px screen never cuts one off.
 */
export const FLOATING_PLACEMENT = { align: "start", sideOffset: 6, collisionPadding: 8 } as const;

export const FLOATING_PANEL = "z-30 rounded-lg border border-line bg-surface shadow-lg";
