/* sj-voice-error.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define SJ_VOICE_ERROR (sj_voice_error_quark ())

typedef enum
{
  SJ_VOICE_ERROR_NO_MICROPHONE,     /* no input device, or no sound server */
  SJ_VOICE_ERROR_BUSY,              /* the device is used by another program */
  SJ_VOICE_ERROR_CAPTURE,           /* any other failure of the capture */
  SJ_VOICE_ERROR_MODEL_MISSING,     /* the offline model is not installed */
  SJ_VOICE_ERROR_NOTHING_HEARD,     /* no words were recognised */
  SJ_VOICE_ERROR_ENDPOINT_UNREACHABLE,
  SJ_VOICE_ERROR_ENDPOINT_REFUSED,  /* 401 or 403: the key */
  SJ_VOICE_ERROR_ENDPOINT_FAILED,   /* any other answer that is not a transcript */
  SJ_VOICE_ERROR_MODEL_INVALID,     /* the offline model is there but cannot be read */
} SjVoiceError;

GQuark sj_voice_error_quark (void);

G_END_DECLS
