// The frame every non-chat tool shares: its model picker (or why there is none), its fields,
// the button that sends, the error with its code and message, svc's overhead, the result.
import type { FormEvent, ReactNode } from 'react';
import { ErrorNote } from '../../components/error-note.js';
import { ModelPicker, NoModels } from './model-picker.js';
import type { ModelOption, Tool } from './model-kinds.js';
import type { GatewayTiming } from './server-timing.js';
import { TimingNote } from './timing-note.js';

export interface ToolFormProps {
  tool: Tool;
  title: string;
  options: readonly ModelOption[];
  model: string;
  onModel: (id: string) => void;
  /** What the button says ("Embed"), and whether it may be pressed now. */
  action: string;
  ready: boolean;
  busy: boolean;
  onRun: () => void;
  error: unknown;
  timing: GatewayTiming | null;
  /** The tool's own fields. */
  children: ReactNode;
  /** What came back, shown under the form. */
  result: ReactNode;
}

export function ToolForm(props: ToolFormProps) {
  const { tool, options } = props;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (props.ready && !props.busy && props.model !== '') props.onRun();
  };
  return (
    <div className="card playground-tool" data-testid={`${tool}-tool`}>
      <h2>{props.title}</h2>
      {options.length === 0 ? <NoModels tool={tool} /> : <ModelPicker tool={tool} options={options} value={props.model} onChange={props.onModel} />}
      <form onSubmit={submit}>
        {props.children}
        <div className="actions">
          <button type="submit" className="primary" disabled={!props.ready || props.busy || props.model === ''} aria-busy={props.busy} data-testid={`${tool}-run`}>
            {props.busy ? `${props.action}…` : props.action}
          </button>
        </div>
      </form>
      {props.error !== null && props.error !== undefined && <ErrorNote error={props.error} />}
      <div data-testid={`${tool}-result`}>{props.result}</div>
      <TimingNote timing={props.timing} testId={`${tool}-timing`} />
    </div>
  );
}
