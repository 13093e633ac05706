/**
 * A stand-in for an object a `beforeAll` hook creates, so a test file can name it once at module
 * level (`const { t } = useTestApp()`) instead of declaring a `let` and assigning it in the hook.
 * Reads, writes and calls go to the object once `set`; before that (or after `set(undefined)`) any
 * use fails with one line saying why. Methods found on the object's prototype (a class instance such
 * as puppeteer's Browser) are bound to the object itself, so private fields keep working.
 */
export function lateBound<T extends object>(what: string): { handle: T; set(value: T | undefined): void; current(): T | undefined } {
  let value: T | undefined;
  const real = (): T => {
    if (value === undefined)
      throw new Error(`${what} is not ready: it exists from its beforeAll hook to its afterAll hook (use it in a test or a later hook)`);
    return value;
  };
  const handle = new Proxy({} as T, {
    get(_, prop) {
      const v = real();
      const x: unknown = Reflect.get(v, prop, v);
      return typeof x === 'function' && !Object.prototype.hasOwnProperty.call(v, prop) ? (x as (...a: unknown[]) => unknown).bind(v) : x;
    },
    set: (_, prop, x) => Reflect.set(real(), prop, x),
    has: (_, prop) => Reflect.has(real(), prop),
    ownKeys: () => Reflect.ownKeys(real()),
    getOwnPropertyDescriptor(_, prop) {
      const d = Reflect.getOwnPropertyDescriptor(real(), prop);
      return d && { ...d, configurable: true };
    },
  });
  return {
    handle,
    set(v) {
      value = v;
    },
    current: () => value,
  };
}
