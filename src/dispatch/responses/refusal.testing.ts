// For the tests beside this file: the 400 a call throws, as what a test asserts on. Throws
// when the call does not throw a request.invalid whose message names the path it reports.
import { RequestError } from '../../protocol/errors.js';

export function refusal(run: () => unknown): { path: string; message: string } {
  try {
    run();
  } catch (error) {
    if (!(error instanceof RequestError) || error.code !== 'request.invalid') throw error;
    const [problem] = error.details.problems as { path: string; message: string }[];
    if (!problem || !error.message.includes(`\`${problem.path}\``)) throw new Error(`the message does not name the path: ${error.message}`, { cause: error });
    return { path: problem.path, message: error.message };
  }
  throw new Error('expected a request.invalid error');
}
