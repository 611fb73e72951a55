/* main.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#include "config.h"

#include "sj-application.h"
#include "sj-redact.h"

int
main (int   argc,
      char *argv[])
{
  g_autoptr(SjApplication) app = NULL;

  /* Secrets are masked in every log line, whoever logs it. */
  g_log_set_writer_func (sj_redact_log_writer, NULL, NULL);
  sj_application_prepare_env ();

  sj_application_setup_i18n ();

  app = sj_application_new ();
  /* Quitting always quits (issue 27): within 2 s, whatever is pending. */
  sj_application_set_quit_deadline (app, 1700);

  return g_application_run (G_APPLICATION (app), argc, argv);
}
