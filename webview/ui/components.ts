// The one module that knows the component library. The design names @vscode/webview-ui-toolkit,
// which its authors deprecated in January 2025 (its base, FAST Foundation, was retired); pages
// build controls only through the functions here, so moving to @vscode-elements/elements means
// rewriting this file alone. The toolkit's components take their colours from VS Code's
// --vscode-* variables themselves, and adopt constructed stylesheets (allowed by the pages'
// CSP without 'unsafe-inline').
import {
  provideVSCodeDesignSystem,
  vsCodeBadge,
  vsCodeButton,
  vsCodeCheckbox,
  vsCodeDivider,
  vsCodeDropdown,
  vsCodeOption,
  vsCodeProgressRing,
  vsCodeRadio,
  vsCodeRadioGroup,
} from '@vscode/webview-ui-toolkit';
import { h } from '../shared/dom.js';

let registered = false;

/** Defines the custom elements; once per page, before the first control is made. */
export function registerComponents(): void {
  if (registered) return;
  registered = true;
  provideVSCodeDesignSystem().register(
    vsCodeBadge(),
    vsCodeButton(),
    vsCodeCheckbox(),
    vsCodeDivider(),
    vsCodeDropdown(),
    vsCodeOption(),
    vsCodeProgressRing(),
    vsCodeRadio(),
    vsCodeRadioGroup(),
  );
}

/** The value-carrying controls of the toolkit, as far as the pages use them. */
interface ValueElement extends HTMLElement {
  value: string;
  disabled: boolean;
}

interface CheckedElement extends HTMLElement {
  checked: boolean;
}

export interface ButtonOptions {
  label: string;
  onClick: () => void;
  /** Tooltip and accessible name when the label is a symbol. */
  title?: string;
  appearance?: 'primary' | 'secondary' | 'icon';
  id?: string;
}

export function button(options: ButtonOptions): HTMLElement & { disabled: boolean } {
  registerComponents();
  const el = document.createElement('vscode-button') as HTMLElement & { disabled: boolean };
  el.textContent = options.label;
  el.setAttribute('appearance', options.appearance ?? 'secondary');
  if (options.title) {
    el.title = options.title;
    el.setAttribute('aria-label', options.title);
  }
  if (options.id) el.id = options.id;
  el.addEventListener('click', () => {
    if (!el.disabled) options.onClick();
  });
  return el;
}

export interface Choice {
  value: string;
  label: string;
}

export interface Dropdown {
  element: HTMLElement;
  readonly value: string;
  setChoices(choices: Choice[], value: string): void;
  setValue(value: string): void;
  setDisabled(disabled: boolean): void;
}

/** A labelled drop-down list; `onChange` gets the chosen value. */
export function dropdown(options: { label: string; choices: Choice[]; value: string; onChange: (value: string) => void; id?: string }): Dropdown {
  registerComponents();
  const select = document.createElement('vscode-dropdown') as ValueElement;
  select.setAttribute('aria-label', options.label);
  if (options.id) select.id = options.id;
  const fill = (choices: Choice[], value: string) => {
    select.replaceChildren(
      ...choices.map((c) => {
        const option = document.createElement('vscode-option') as ValueElement & { selected: boolean };
        option.setAttribute('value', c.value);
        option.textContent = c.label;
        // Marking the option (not only setting select.value) survives the element upgrading
        // after it is attached, when the toolkit picks its initial selection.
        if (c.value === value) option.setAttribute('selected', '');
        return option;
      }),
    );
    select.value = value;
  };
  fill(options.choices, options.value);
  select.addEventListener('change', () => options.onChange(select.value));
  const element = h('label', { class: 'control' }, h('span', { class: 'control-label', text: options.label }), select);
  return {
    element,
    get value() {
      return select.value;
    },
    setChoices: fill,
    setValue(value) {
      if (select.value !== value) select.value = value;
    },
    setDisabled(disabled) {
      select.disabled = disabled;
    },
  };
}

export function checkbox(options: { label: string; checked: boolean; onChange: (checked: boolean) => void }): HTMLElement & { checked: boolean } {
  registerComponents();
  const el = document.createElement('vscode-checkbox') as CheckedElement;
  el.textContent = options.label;
  el.checked = options.checked;
  if (options.checked) el.setAttribute('checked', '');
  el.addEventListener('change', () => options.onChange(el.checked));
  return el;
}

/** Mutually exclusive choices shown side by side (the x axis: steps or wall time). */
export function radioGroup(options: { label: string; choices: Choice[]; value: string; onChange: (value: string) => void; id?: string }): HTMLElement & { value: string } {
  registerComponents();
  const group = document.createElement('vscode-radio-group') as ValueElement;
  group.setAttribute('orientation', 'horizontal');
  if (options.id) group.id = options.id;
  const label = h('label', { text: options.label });
  label.slot = 'label';
  group.append(
    label,
    ...options.choices.map((c) => {
      const radio = document.createElement('vscode-radio') as ValueElement;
      radio.setAttribute('value', c.value);
      radio.textContent = c.label;
      if (c.value === options.value) radio.setAttribute('checked', '');
      return radio;
    }),
  );
  group.addEventListener('change', () => {
    if (group.value) options.onChange(group.value);
  });
  return group;
}

/**
 * A slider with its value beside it. The toolkit has none, so this is a native range input
 * (keyboard accessible by itself: arrows, Page Up/Down, Home/End), styled in the pages' CSS.
 */
export function slider(options: {
  label: string;
  min: number;
  max: number;
  step: number;
  value: number;
  format: (value: number) => string;
  onInput: (value: number) => void;
  id?: string;
}): { element: HTMLElement; input: HTMLInputElement; setValue(value: number): void } {
  const input = h('input', { attrs: { type: 'range', min: options.min, max: options.max, step: options.step, 'aria-label': options.label } });
  if (options.id) input.id = options.id;
  input.value = String(options.value);
  const output = h('output', { text: options.format(options.value) });
  input.addEventListener('input', () => {
    const value = Number(input.value);
    output.textContent = options.format(value);
    options.onInput(value);
  });
  const element = h('label', { class: 'control slider' }, h('span', { class: 'control-label', text: options.label }), input, output);
  return {
    element,
    input,
    setValue(value) {
      input.value = String(value);
      output.textContent = options.format(value);
    },
  };
}

export function badge(text: string, className?: string): HTMLElement {
  registerComponents();
  const el = document.createElement('vscode-badge');
  el.textContent = text;
  if (className) el.className = className;
  return el;
}

export function progressRing(label: string): HTMLElement {
  registerComponents();
  const el = document.createElement('vscode-progress-ring');
  el.setAttribute('aria-label', label);
  return el;
}

export function divider(): HTMLElement {
  registerComponents();
  return document.createElement('vscode-divider');
}
