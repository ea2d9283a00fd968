// The x axis of learning curves, environment steps or wall time since the run's start, and the
// control that picks it on the dashboard and compare pages.
import { radioGroup } from '../ui/components.js';

export type XMode = 'step' | 'time';

/**
 * The 'x axis' radio group. `onChange` runs only when the axis really changes: the component
 * also reports its initial selection.
 */
export function xAxisPicker(current: () => XMode, onChange: (mode: XMode) => void): HTMLElement & { value: string } {
  return radioGroup({
    label: 'x axis',
    id: 'x-axis',
    value: current(),
    choices: [
      { value: 'step', label: 'Env steps' },
      { value: 'time', label: 'Wall time' },
    ],
    onChange: (value) => {
      const mode: XMode = value === 'time' ? 'time' : 'step';
      if (mode !== current()) onChange(mode);
    },
  });
}
