import type { ComponentChildren } from 'preact';
import { messageOf } from '../http/client.ts';

/** An error the user should read: announced by screen readers as it appears. */
export function ErrorMessage(props: { error: unknown; id?: string }) {
  if (!props.error) return null;
  return (
    <p class="message error" role="alert" id={props.id}>
      {messageOf(props.error)}
    </p>
  );
}

export function Status(props: { children: ComponentChildren }) {
  return (
    <p class="message status" role="status">
      {props.children}
    </p>
  );
}

export function Progress(props: { value: number; max: number; label: string }) {
  const pct = props.max > 0 ? Math.round((100 * props.value) / props.max) : 0;
  return (
    <div class="progress">
      <progress value={props.value} max={Math.max(props.max, 1)} aria-label={props.label} />
      <span>
        {props.value.toLocaleString('en-US')} / {props.max.toLocaleString('en-US')} ({pct}%)
      </span>
    </div>
  );
}

export function Spinner(props: { label: string }) {
  return (
    <span class="spinner" role="status">
      <span aria-hidden="true" class="dot" />
      {props.label}
    </span>
  );
}

export const fmt = (v: unknown, digits = 3): string => {
  if (v === null || v === undefined || v === '') return '–';
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) return '–';
    if (Number.isInteger(v)) return v.toLocaleString('en-US');
    return Math.abs(v) >= 1000 ? v.toFixed(0) : v.toPrecision(digits);
  }
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  return String(v);
};

export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '–');
