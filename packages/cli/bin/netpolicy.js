#!/usr/bin/env node
import '../dist/netpolicy.js';
