/* sj-log-entry.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * One line of the REPL's console: a log message or an evaluation error,
 * stamped with the local time it arrived.
 */

#include "config.h"

#include "sj-log-entry.h"

struct _SjLogEntry
{
  GObject     parent_instance;

  SjLogLevel  level;
  char       *message;
  GDateTime  *time;
};

G_DEFINE_FINAL_TYPE (SjLogEntry, sj_log_entry, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_LEVEL,
  PROP_MESSAGE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
sj_log_entry_finalize (GObject *object)
{
  SjLogEntry *self = (SjLogEntry *)object;

  g_clear_pointer (&self->message, g_free);
  g_clear_pointer (&self->time, g_date_time_unref);

  G_OBJECT_CLASS (sj_log_entry_parent_class)->finalize (object);
}

static void
sj_log_entry_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  SjLogEntry *self = SJ_LOG_ENTRY (object);

  switch (prop_id)
    {
    case PROP_LEVEL:
      g_value_set_int (value, self->level);
      break;

    case PROP_MESSAGE:
      g_value_set_string (value, self->message);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sj_log_entry_class_init (SjLogEntryClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = sj_log_entry_finalize;
  object_class->get_property = sj_log_entry_get_property;

  properties[PROP_LEVEL] =
    g_param_spec_int ("level", NULL, NULL,
                      SJ_LOG_LEVEL_INFO, SJ_LOG_LEVEL_ERROR, SJ_LOG_LEVEL_INFO,
                      (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  properties[PROP_MESSAGE] =
    g_param_spec_string ("message", NULL, NULL,
                         NULL,
                         (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
sj_log_entry_init (SjLogEntry *self)
{
  self->time = g_date_time_new_now_local ();
}

SjLogEntry *
sj_log_entry_new (SjLogLevel  level,
                  const char *message)
{
  SjLogEntry *self = g_object_new (SJ_TYPE_LOG_ENTRY, NULL);

  self->level = level;
  self->message = g_strdup (message != NULL ? message : "");

  return self;
}

SjLogLevel
sj_log_entry_get_level (SjLogEntry *self)
{
  g_assert (SJ_IS_LOG_ENTRY (self));

  return self->level;
}

const char *
sj_log_entry_get_message (SjLogEntry *self)
{
  g_assert (SJ_IS_LOG_ENTRY (self));

  return self->message;
}

GDateTime *
sj_log_entry_get_time (SjLogEntry *self)
{
  g_assert (SJ_IS_LOG_ENTRY (self));

  return self->time;
}

/* The form used when copying the console: "12:03:04 error: message". */
char *
sj_log_entry_format (SjLogEntry *self)
{
  static const char *names[] = { "info", "info", "warning", "error" };
  g_autofree char *clock = NULL;

  g_assert (SJ_IS_LOG_ENTRY (self));

  clock = g_date_time_format (self->time, "%H:%M:%S");

  return g_strdup_printf ("%s %s: %s", clock, names[self->level], self->message);
}

/* Strudel's logger uses free-form types; unknown ones are plain info. */
SjLogLevel
sj_log_level_from_string (const char *level)
{
  if (g_strcmp0 (level, "error") == 0)
    return SJ_LOG_LEVEL_ERROR;
  if (g_strcmp0 (level, "warning") == 0 || g_strcmp0 (level, "warn") == 0)
    return SJ_LOG_LEVEL_WARNING;
  if (g_strcmp0 (level, "highlight") == 0)
    return SJ_LOG_LEVEL_HIGHLIGHT;
  return SJ_LOG_LEVEL_INFO;
}
