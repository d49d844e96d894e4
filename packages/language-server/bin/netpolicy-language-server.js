#!/usr/bin/env node
import '../dist/node.cjs';
