#!/usr/bin/env node
import { runFromCommandLine } from '../dist/netpolicy.js';

runFromCommandLine();
