/**
 * One `T` per owner (a PrismaClient), made on first use: servers over different databases in one
 * process (tests, tools) never share per-process state, and it goes with its owner.
 */
export function perOwner<O extends object, T>(create: (owner: O) => T): (owner: O) => T {
  const byOwner = new WeakMap<O, T>();
  return (owner) => {
    let value = byOwner.get(owner);
    if (value === undefined) {
      value = create(owner);
      byOwner.set(owner, value);
    }
    return value;
  };
}
