/* sj-knowledge-cli.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Exit statuses of the command line. */
#define SJ_CLI_EXIT_OK    0
#define SJ_CLI_EXIT_ERROR 1
#define SJ_CLI_EXIT_USAGE 2

typedef struct
{
  char       *knowledge;       /* --knowledge QUERY */
  char       *knowledge_json;  /* --knowledge-json '{"q":…}' */
  char       *search;          /* --search-knowledge REGEX */
  char       *category;        /* --category C */
  int         context;         /* --context N, -1 when not given */
  int         max;             /* --max N, -1 when not given */
  char       *sounds;          /* --sounds FILE */
} SjKnowledgeCliOptions;

gboolean sj_knowledge_cli_wanted (const SjKnowledgeCliOptions *options);
int      sj_knowledge_cli_run    (const SjKnowledgeCliOptions *options);

G_END_DECLS
