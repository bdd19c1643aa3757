import { enableCompileCache } from 'node:module';

// Keeps V8's compiled code of the modules this process loads on disk (Node's own cache, in the temporary
// directory), so the next start of the CLI or the service compiles only what changed: loading the code is most
// of a CLI command's time. The entry points import this file first, before the modules it should cover. Where
// the directory cannot be written, Node says so in the returned status and the process loads as before.
enableCompileCache();
