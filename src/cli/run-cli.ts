// Entry module for the `repute` bin: runs the CLI on process.argv.
import { runMain } from './main.js';

runMain();
