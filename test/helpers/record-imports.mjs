// `node --import ./test/helpers/record-imports.mjs …`: appends the URL of every module the program
// loads (each resolution, builtins included) to the file RECORD_IMPORTS_TO names, one per line.
// The hooks run on Node's loader thread; writing from there, synchronously, loses no line at exit.
import { register } from 'node:module';

register('./record-imports-hooks.mjs', import.meta.url, { data: { file: process.env.RECORD_IMPORTS_TO } });
