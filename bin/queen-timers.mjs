#!/usr/bin/env node
// The operator CLI (`npx queen-timers token ...`), run through tsx so it shares the sources.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
