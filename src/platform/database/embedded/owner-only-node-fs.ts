import type { PGlite, PGliteOptions } from '@electric-sql/pglite';

type Filesystem = NonNullable<PGliteOptions['fs']>;
type EmscriptenOpts = { preRun?: Array<(mod: unknown) => void> | ((mod: unknown) => void) } & Record<string, unknown>;
type SetAttr = (target: unknown, attr: { mode?: number }) => unknown;
interface EmscriptenNodeFs {
  node_ops: { setattr: SetAttr };
  stream_ops: { setattr: SetAttr };
}
/** PGlite's `NodeFS` (`@electric-sql/pglite/nodefs`), as far as it is used here. */
interface NodeFsLike {
  init(pg: PGlite, opts: EmscriptenOpts): Promise<{ emscriptenOpts: EmscriptenOpts }>;
}
type NodeFsClass = new (dataDir: string) => NodeFsLike;

/** Group and other bits: never granted under DATA_DIR (docs/contract.md "Running"). */
const OTHERS = 0o077;

/**
 * Keeps a mode change owner-only. Emscripten's file layer applies no umask and sets every file PostgreSQL
 * creates to 0666 through `setattr`, so the process umask alone does not protect the database's files.
 */
function ownerOnly(setattr: SetAttr): SetAttr {
  return (target, attr) => setattr(target, attr.mode == null ? attr : { ...attr, mode: attr.mode & ~OTHERS });
}

function restrictModes(mod: unknown): void {
  const nodefs = (mod as { NODEFS: EmscriptenNodeFs }).NODEFS;
  nodefs.node_ops.setattr = ownerOnly(nodefs.node_ops.setattr);
  nodefs.stream_ops.setattr = ownerOnly(nodefs.stream_ops.setattr);
}

/** PGlite's Node file system over `dataDir`, with owner-only file modes. */
export async function ownerOnlyNodeFs(dataDir: string): Promise<Filesystem> {
  // A subpath export, which this project's module resolution does not type: typed by NodeFsLike above.
  const subpath: string = '@electric-sql/pglite/nodefs';
  const { NodeFS } = (await import(subpath)) as { NodeFS: NodeFsClass };
  class OwnerOnlyNodeFS extends NodeFS {
    override async init(pg: PGlite, opts: EmscriptenOpts) {
      const { emscriptenOpts } = await super.init(pg, opts);
      const preRun = [emscriptenOpts.preRun ?? []].flat();
      return { emscriptenOpts: { ...emscriptenOpts, preRun: [restrictModes, ...preRun] } };
    }
  }
  return new OwnerOnlyNodeFS(dataDir) as unknown as Filesystem;
}
