// SPDX-License-Identifier: AGPL-3.0-or-later
//
// The editor's side of a quantized swap (swap.mjs): the new code shown at
// once as one undo step of its own with its marks and widgets, the old
// pattern's events kept from highlighting the new text, and the banner over
// the editor ("Queued for cycle N", the countdown, its Cancel button).

import { updateMiniLocations, updateSliderWidgets, updateWidgets } from '@strudel/codemirror';
import { isolateHistory } from '@codemirror/commands';
import { Transaction } from '@codemirror/state';

// Where a hap begins: its whole event's begin (its part's, for a continuous
// hap, which has no whole).
export function beginOf(hap) {
  return (hap.whole ?? hap.part).begin;
}

// The smallest change that turns `from` into `to`: the common prefix and
// suffix stay, so the cursor, the scroll position and CodeMirror's marks
// outside the edited region stay where they are.
function minimalChange(from, to) {
  let start = 0;
  const max = Math.min(from.length, to.length);
  while (start < max && from.charCodeAt(start) === to.charCodeAt(start)) {
    start++;
  }
  let endFrom = from.length;
  let endTo = to.length;
  while (endFrom > start && endTo > start && from.charCodeAt(endFrom - 1) === to.charCodeAt(endTo - 1)) {
    endFrom--;
    endTo--;
  }
  return { from: start, to: endFrom, insert: to.slice(start, endTo) };
}

// Shows `code` without evaluating it, as one undo step of its own, with
// the mirror's current mini-notation marks and widgets.
export function showCode(mirror, code) {
  const view = mirror.editor;
  const current = view.state.doc.toString();
  if (current !== code) {
    view.dispatch({
      changes: minimalChange(current, code),
      annotations: [Transaction.userEvent.of('swap'), isolateHistory.of('full')],
    });
  }
  updateMiniLocations(view, mirror.miniLocations ?? []);
  const widgets = mirror.widgets ?? [];
  updateSliderWidgets(view, widgets.filter((w) => w.type === 'slider'));
  updateWidgets(view, widgets.filter((w) => w.type !== 'slider'));
}

// While a swap is pending, the editor shows the new code but the old
// pattern plays: its events point at locations of the old text, so they
// are not highlighted, neither then nor while they still sound after B
// (the swapper's `oldUntil`). Replaces the mirror instance's highlight.
export function hideOldHighlights(mirror, swapper) {
  const highlight = mirror.highlight.bind(mirror);
  mirror.highlight = (haps, time) => {
    if (swapper.pending) {
      haps = [];
    } else if (swapper.oldUntil !== null) {
      haps = haps.filter((hap) => !beginOf(hap).lt(swapper.oldUntil));
    }
    return highlight(haps, time);
  };
}

// The banner over the editor while a swap is pending, made on first use.
export class SwapBanner {
  constructor({ mirror, post }) {
    this.mirror = mirror;
    this.post = post;
    this.banner = null;
    this.strings = {
      cancel: 'Cancel',
      cancelName: 'Cancel the pending change',
      pending: 'Queued for cycle %g',
      landing: 'Landing at cycle %g',
      landsIn: ['Lands in %d beats (cycle %g)', 'Lands in %d beat (cycle %g)', 'Lands in %d beats (cycle %g)'],
    };
  }

  // The banner's words, translated by the app (the hello's `strings`);
  // English until then.
  setStrings(strings) {
    const forms = Array.isArray(strings?.landsIn) ? strings.landsIn.filter((x) => typeof x === 'string') : [];
    const text = (x, fallback) => (typeof x === 'string' && x ? x : fallback);
    this.strings = {
      cancel: text(strings?.cancel, this.strings.cancel),
      cancelName: text(strings?.cancelName, this.strings.cancelName),
      pending: text(strings?.pending, this.strings.pending),
      landing: text(strings?.landing, this.strings.landing),
      landsIn: forms.length > 1 ? forms : this.strings.landsIn,
    };
    this.banner?.remove();
    this.banner = null;
  }

  // Shows `swap` (null: hides the banner), with `beats` left (null: not
  // counted yet). `landing`: the swap is committed (too late to cancel) and
  // sounds when its boundary is heard.
  show(swap, beats = null, landing = false) {
    const root = this.mirror.root;
    if (!this.banner) {
      // A status region (read out as it changes) and, next to it, the
      // Cancel button: it asks the app, which cancels the way its own
      // Cancel Change action does (the agent is told, the history kept).
      this.banner = document.createElement('div');
      this.banner.id = 'sj-swap-banner';
      this.banner.hidden = true;
      this.bannerText = document.createElement('span');
      this.bannerText.id = 'sj-swap-countdown';
      this.bannerText.setAttribute('role', 'status');
      this.bannerText.setAttribute('aria-live', 'polite');
      this.bannerCancel = document.createElement('button');
      this.bannerCancel.id = 'sj-swap-cancel';
      this.bannerCancel.type = 'button';
      this.bannerCancel.textContent = this.strings.cancel;
      this.bannerCancel.setAttribute('aria-label', this.strings.cancelName);
      this.bannerCancel.addEventListener('click', () => {
        this.post({ type: 'action', name: 'cancel-change' });
      });
      this.banner.append(this.bannerText, this.bannerCancel);
      document.body.append(this.banner);
    }
    root.classList.toggle('sj-swap-pending', Boolean(swap));
    this.banner.hidden = !swap;
    this.bannerCancel.disabled = landing;
    if (landing) {
      this.banner.dataset.landing = 'true';
    } else {
      delete this.banner.dataset.landing;
    }
    if (!swap) {
      this.bannerText.textContent = '';
      delete this.banner.dataset.cycle;
      delete this.banner.dataset.beats;
      return;
    }
    const cycle = swap.atNumber;
    const shown = Number.isInteger(cycle) ? String(cycle) : cycle.toFixed(2);
    const forms = this.strings.landsIn;
    let text = beats === null ? this.strings.pending : forms[Math.min(beats, forms.length - 1)];
    if (landing) {
      text = this.strings.landing;
    }
    this.bannerText.textContent = text.replace('%d', String(beats)).replace('%g', shown);
    this.banner.dataset.cycle = String(cycle);
    if (beats === null) {
      delete this.banner.dataset.beats;
    } else {
      this.banner.dataset.beats = String(beats);
    }
  }
}
