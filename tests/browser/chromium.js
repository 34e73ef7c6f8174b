// chromium.js - the one way the page tests start Debian's Chromium (headless, through
// playwright-core, no browser download): the flags keep it off the network, which this
// machine's closed network would otherwise answer with refused connections.
'use strict';
const path = require('path');
const { chromium } = require(path.join(__dirname, 'node_modules/playwright-core'));

function launch() {
  return chromium.launch({
    executablePath: '/usr/bin/chromium', headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

module.exports = { launch };
