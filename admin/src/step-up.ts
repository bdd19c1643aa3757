import { create } from 'zustand';

/**
 * The step-up prompt's state: an action answered `error_reauthentication_required`, so `authed()` waits here
 * until the person proves who they are again (StepUpPrompt), then repeats the action by itself.
 */
interface StepUpState {
  waiting: Array<{ resolve(): void; reject(error: unknown): void }>;
}

export const useStepUp = create<StepUpState>()(() => ({ waiting: [] }));

/** Resolves once the session is proven again; rejects if the person cancels. Concurrent askers share one prompt. */
export function askStepUp(): Promise<void> {
  return new Promise((resolve, reject) => {
    useStepUp.setState((s) => ({ waiting: [...s.waiting, { resolve, reject }] }));
  });
}

export function finishStepUp(outcome: { proven: true } | { proven: false; error: unknown }): void {
  const { waiting } = useStepUp.getState();
  useStepUp.setState({ waiting: [] });
  for (const waiter of waiting) {
    if (outcome.proven) waiter.resolve();
    else waiter.reject(outcome.error);
  }
}
