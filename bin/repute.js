#!/usr/bin/env node
import { runMain } from '../dist/cli/main.js';

runMain();
