/* sj-relative-time.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Times in the side panel as people say them: "Just now", "5 min ago",
 * "Yesterday". Past a day an exact time stops mattering, so the text gets
 * coarser the older the time is.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-relative-time.h"

/**
 * sj_relative_time_format:
 * @time_us: microseconds since the epoch, 0 for none
 * @now: (nullable): the time to count from, %NULL for the current time;
 *   tests pass a fixed one
 *
 * Returns: (transfer full): @time_us for people, in the local time zone.
 */
char *
sj_relative_time_format (gint64     time_us,
                         GDateTime *now)
{
  g_autoptr(GDateTime) then = NULL;
  g_autoptr(GDateTime) local_now = NULL;
  g_autoptr(GDateTime) then_day = NULL;
  g_autoptr(GDateTime) today = NULL;
  GTimeSpan age;
  gint64 days;

  if (time_us <= 0)
    return g_strdup (_("Unknown time"));

  then = g_date_time_new_from_unix_local (time_us / G_USEC_PER_SEC);
  local_now = now != NULL ? g_date_time_to_local (now) : g_date_time_new_now_local ();
  if (then == NULL || local_now == NULL)
    return g_strdup (_("Unknown time"));

  age = g_date_time_difference (local_now, then);

  /* A clock set a little back must not say "in 2 min". */
  if (age < G_TIME_SPAN_MINUTE)
    return g_strdup (_("Just now"));

  if (age < G_TIME_SPAN_HOUR)
    {
      int minutes = age / G_TIME_SPAN_MINUTE;

      /* TRANSLATORS: how long ago something happened, e.g. "5 min ago" */
      return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%d min ago", "%d min ago", minutes), minutes);
    }

  /* Calendar days, not 24-hour spans: 23:00 yesterday is "Yesterday" at
   * 8:00 today. */
  then_day = g_date_time_new_local (g_date_time_get_year (then), g_date_time_get_month (then),
                                    g_date_time_get_day_of_month (then), 0, 0, 0);
  today = g_date_time_new_local (g_date_time_get_year (local_now), g_date_time_get_month (local_now),
                                 g_date_time_get_day_of_month (local_now), 0, 0, 0);
  days = (g_date_time_difference (today, then_day) + G_TIME_SPAN_HOUR * 2) / G_TIME_SPAN_DAY;

  if (days <= 0)
    {
      int hours = age / G_TIME_SPAN_HOUR;

      /* TRANSLATORS: how long ago something happened, e.g. "3 h ago" */
      return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%d h ago", "%d h ago", hours), hours);
    }

  if (days == 1)
    return g_strdup (_("Yesterday"));

  if (days < 7)
    /* TRANSLATORS: a day of the last week, see the g_date_time_format() docs */
    return g_date_time_format (then, _("%A"));

  if (g_date_time_get_year (then) == g_date_time_get_year (local_now))
    /* TRANSLATORS: a date this year, e.g. "Mar 5", see the g_date_time_format() docs */
    return g_date_time_format (then, _("%b %-d"));

  /* TRANSLATORS: a date in another year, e.g. "Mar 5, 2024", see the g_date_time_format() docs */
  return g_date_time_format (then, _("%b %-d, %Y"));
}
