/**
 * Band math (issue 11): an expression over named inputs (`b1`, `b2`, … or STAC asset keys), parsed by jsep
 * (no eval, the only jsep import) and compiled to a tree of closures over a Float64Array of the inputs.
 * Numbers are doubles; a result that is not finite (a division by zero, log of 0, sqrt of −1) makes the
 * pixel invalid, as an invalid input does. Pure.
 */
import jsep from 'jsep';
import { ZonalError } from '../errors.ts';

type Node = jsep.Expression;
export type Evaluate = (inputs: Float64Array) => number;

jsep.addBinaryOp('**', 11, true);
// jsep parses these by default; they have no meaning over pixel values.
for (const op of ['||', '&&', '|', '^', '&', '<<', '>>', '>>>', '===', '!==']) jsep.removeBinaryOp(op);
for (const op of ['!', '~']) jsep.removeUnaryOp(op);

const FUNCTIONS: Record<string, { arity: [number, number]; fn: (...a: number[]) => number }> = {
  abs: { arity: [1, 1], fn: Math.abs },
  sqrt: { arity: [1, 1], fn: Math.sqrt },
  exp: { arity: [1, 1], fn: Math.exp },
  log: { arity: [1, 1], fn: Math.log },
  log10: { arity: [1, 1], fn: Math.log10 },
  floor: { arity: [1, 1], fn: Math.floor },
  ceil: { arity: [1, 1], fn: Math.ceil },
  round: { arity: [1, 1], fn: Math.round },
  pow: { arity: [2, 2], fn: Math.pow },
  min: { arity: [2, 16], fn: Math.min },
  max: { arity: [2, 16], fn: Math.max },
};

const WHAT =
  'numbers, the input names, + − * / % ** and parentheses, comparisons (< <= > >= == != give 1 or 0), and the functions ' + Object.keys(FUNCTIONS).join(', ');

function problem(detail: string): ZonalError {
  return new ZonalError('validation_failed', detail, { errors: [{ path: '/expression', message: detail }] });
}

function parse(text: string): Node {
  try {
    return jsep(text);
  } catch (e) {
    throw problem(`The expression cannot be read (${(e as Error).message.replace(/ at character \d+$/, '')}): it may use ${WHAT}.`);
  }
}

/** The inputs an expression uses, in order of first use; ZonalError naming what is wrong otherwise. */
export function expressionInputs(text: string, allowed: readonly string[]): string[] {
  const used: string[] = [];
  const visit = (n: Node): void => {
    switch (n.type) {
      case 'Literal':
        if (typeof n['value'] !== 'number') throw problem(`The expression has ${JSON.stringify(n['raw'])}, which is not a number: it may use ${WHAT}.`);
        return;
      case 'Identifier': {
        const name = n['name'] as string;
        if (!allowed.includes(name)) throw problem(`The expression uses "${name}", which is not an input here: the inputs are ${allowed.join(', ')}.`);
        if (!used.includes(name)) used.push(name);
        return;
      }
      case 'UnaryExpression':
        if (n['operator'] !== '-' && n['operator'] !== '+') throw problem(`The expression uses "${String(n['operator'])}": it may use ${WHAT}.`);
        visit(n['argument'] as Node);
        return;
      case 'BinaryExpression':
        visit(n['left'] as Node);
        visit(n['right'] as Node);
        return;
      case 'CallExpression': {
        const callee = n['callee'] as Node;
        const name = callee.type === 'Identifier' ? (callee['name'] as string) : '';
        const f = FUNCTIONS[name];
        if (!f)
          throw problem(`The expression calls "${name || 'something'}", which is not a function here: the functions are ${Object.keys(FUNCTIONS).join(', ')}.`);
        const args = n['arguments'] as Node[];
        if (args.length < f.arity[0] || args.length > f.arity[1])
          throw problem(
            `${name} takes ${f.arity[0] === f.arity[1] ? f.arity[0] : `${f.arity[0]} to ${f.arity[1]}`} argument${f.arity[1] === 1 ? '' : 's'}, not ${args.length}.`,
          );
        args.forEach(visit);
        return;
      }
      default:
        throw problem(`The expression has a ${n.type.replace(/Expression$/, '').toLowerCase()}, which band math does not use: it may use ${WHAT}.`);
    }
  };
  visit(parse(text));
  if (used.length === 0) throw problem('The expression uses no input: name at least one of ' + allowed.join(', ') + '.');
  return used;
}

/** The expression compiled over `inputs` (the position of each name in the Float64Array given at evaluation). */
export function compileExpression(text: string, inputs: readonly string[]): Evaluate {
  const build = (n: Node): Evaluate => {
    switch (n.type) {
      case 'Literal': {
        const v = n['value'] as number;
        return () => v;
      }
      case 'Identifier': {
        const k = inputs.indexOf(n['name'] as string);
        if (k < 0) throw problem(`The expression uses "${String(n['name'])}", which is not an input here.`);
        return (x) => x[k] as number;
      }
      case 'UnaryExpression': {
        const a = build(n['argument'] as Node);
        return n['operator'] === '-' ? (x) => -a(x) : a;
      }
      case 'BinaryExpression': {
        const l = build(n['left'] as Node);
        const r = build(n['right'] as Node);
        switch (n['operator']) {
          case '+':
            return (x) => l(x) + r(x);
          case '-':
            return (x) => l(x) - r(x);
          case '*':
            return (x) => l(x) * r(x);
          case '/':
            return (x) => l(x) / r(x);
          case '%':
            return (x) => l(x) % r(x);
          case '**':
            return (x) => l(x) ** r(x);
          case '<':
            return (x) => (l(x) < r(x) ? 1 : 0);
          case '<=':
            return (x) => (l(x) <= r(x) ? 1 : 0);
          case '>':
            return (x) => (l(x) > r(x) ? 1 : 0);
          case '>=':
            return (x) => (l(x) >= r(x) ? 1 : 0);
          case '==':
            return (x) => (l(x) === r(x) ? 1 : 0);
          case '!=':
            return (x) => (l(x) !== r(x) ? 1 : 0);
          default:
            throw problem(`The expression uses "${String(n['operator'])}": it may use ${WHAT}.`);
        }
      }
      case 'CallExpression': {
        const f = FUNCTIONS[((n['callee'] as Node)['name'] as string) ?? ''];
        if (!f) throw problem('The expression calls a function that band math does not have.');
        const args = (n['arguments'] as Node[]).map(build);
        const fn = f.fn;
        return args.length === 1
          ? (x) => fn((args[0] as Evaluate)(x))
          : args.length === 2
            ? (x) => fn((args[0] as Evaluate)(x), (args[1] as Evaluate)(x))
            : (x) => fn(...args.map((a) => a(x)));
      }
      default:
        throw problem(`The expression has a ${n.type}, which band math does not use.`);
    }
  };
  return build(parse(text));
}
