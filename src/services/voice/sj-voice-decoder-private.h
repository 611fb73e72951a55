/* sj-voice-decoder-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The offline recogniser's decoder, set up for the jam (sj-voice-decoder.c),
 * for sj-voice-recognizer.c only.
 */

#pragma once

#include <glib.h>
#include <pocketsphinx.h>

G_BEGIN_DECLS

/* The searches of the decoder: the grammar of jam commands, and the
 * general English model, the fallback. */
#define SJ_VOICE_GRAMMAR_SEARCH "jam"
#define SJ_VOICE_LM_SEARCH "english"

ps_decoder_t *_sj_voice_decoder_load (const char  *model_dir,
                                      GError     **error);
char         *_sj_voice_spell_out    (char        *text);

G_END_DECLS
