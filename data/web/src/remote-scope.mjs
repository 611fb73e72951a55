// SPDX-License-Identifier: AGPL-3.0-or-later
//
// What the page adds to Strudel's scope, after Strudel's own modules
// (evalScope() order: later modules win on equal names): samples(), whose
// maps and files come through the app (remote.mjs) instead of the network.

import { logger } from '@strudel/core';
import { samples as superdoughSamples } from '@strudel/webaudio';

import { remoteSamples } from './remote.mjs';

export const samples = remoteSamples(superdoughSamples, (message) => logger(message, 'error'));
