"use client";

import * as Toast from "@radix-ui/react-toast";
import { createContext, type ReactNode, useCallback, useContext, useRef, useState } from "react";

type Tone = "info" | "error";

interface ToastMessage {
  id: number;
  text: string;
  tone: Tone;
}

type ShowToast = (text: string, tone?: Tone) => void;

const ToastContext = createContext<ShowToast | null>(null);

/** Long enough to read a sentence; hovering or focusing a toast pauses it (Radix). */
const TOAST_DURATION_MS = 5_000;

const TONE_STYLE: Record<Tone, string> = {
  info: "border-line",
  error: "border-danger text-danger",
};

/**
 * The console's toasts: short confirmations of what just happened, announced politely and dismissed
 * by time, swipe, Escape (F8 focuses them) or their close button, all through Radix Toast.
 */
export function Toaster({ children }: { children: ReactNode }) {
  const [messages, setMessages] = useState<ToastMessage[]>([]);
  const nextId = useRef(0);
  const show = useCallback<ShowToast>((text, tone = "info") => {
    nextId.current += 1;
    const id = nextId.current;
    setMessages((shown) => [...shown, { id, text, tone }]);
  }, []);
  const forget = (id: number) => setMessages((shown) => shown.filter((message) => message.id !== id));
  return (
    <ToastContext.Provider value={show}>
      <Toast.Provider duration={TOAST_DURATION_MS} swipeDirection="right">
        {children}
        {messages.map((message) => (
          <Toast.Root
            key={message.id}
            type={message.tone === "error" ? "foreground" : "background"}
            onOpenChange={(open) => {
              if (!open) forget(message.id);
            }}
            className={`flex items-start gap-3 rounded-lg border bg-surface p-3 text-sm shadow-lg ${TONE_STYLE[message.tone]}`}
          >
            <Toast.Description className="flex-1">{message.text}</Toast.Description>
            <Toast.Close aria-label="Dismiss" className="rounded px-1 text-muted hover:text-ink">
              ×
            </Toast.Close>
          </Toast.Root>
        ))}
        <Toast.Viewport
          label="Notifications ({hotkey})"
          className="fixed right-0 bottom-0 z-50 flex w-full max-w-sm flex-col gap-2 p-4 outline-none"
        />
      </Toast.Provider>
    </ToastContext.Provider>
  );
}

/** Shows a toast; only inside `<Toaster>` (the console layout has one). */
export function useToast(): ShowToast {
  const show = useContext(ToastContext);
  if (!show) throw new Error("useToast needs a <Toaster> above it");
  return show;
}
