import { KeyboardEvent, ReactNode, useRef } from 'react';

export interface Tab<T extends string> {
  readonly id: T;
  readonly label: ReactNode;
}

/** The ids that tie a tab to its panel: the panel is `<div role="tabpanel" {...tabPanelProps(prefix, id)}>`. */
export const tabPanelProps = (prefix: string, id: string) =>
  ({ id: `${prefix}-panel-${id}`, 'aria-labelledby': `${prefix}-tab-${id}`, role: 'tabpanel', tabIndex: 0 }) as const;

/**
 * A row of tabs (WAI-ARIA tabs): one tab stop, the arrow keys, Home and End move between the tabs
 * and show the one they reach. `prefix` names the ids of the tabs and of their panels.
 */
export function Tabs<T extends string>({
  label,
  prefix,
  tabs,
  selected,
  onSelect,
}: {
  label: string;
  prefix: string;
  tabs: readonly Tab<T>[];
  selected: T;
  onSelect: (id: T) => void;
}) {
  const list = useRef<HTMLDivElement>(null);
  function move(event: KeyboardEvent<HTMLButtonElement>, index: number) {
    const to = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: tabs.length - 1 }[event.key];
    if (to === undefined) return;
    event.preventDefault();
    const next = tabs[(to + tabs.length) % tabs.length];
    onSelect(next.id);
    list.current?.querySelector<HTMLButtonElement>(`#${prefix}-tab-${next.id}`)?.focus();
  }
  return (
    <div ref={list} role="tablist" aria-label={label} className="tabs">
      {tabs.map((tab, i) => (
        <button
          key={tab.id}
          type="button"
          role="tab"
          id={`${prefix}-tab-${tab.id}`}
          aria-selected={tab.id === selected}
          // Only the shown tab's panel is in the page.
          aria-controls={tab.id === selected ? `${prefix}-panel-${tab.id}` : undefined}
          tabIndex={tab.id === selected ? 0 : -1}
          onClick={() => onSelect(tab.id)}
          onKeyDown={(event) => move(event, i)}
        >
          {tab.label}
        </button>
      ))}
    </div>
  );
}
