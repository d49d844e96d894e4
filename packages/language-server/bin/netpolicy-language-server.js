#!/usr/bin/env node
import '../dist/node.js';
