/** GET /smarts_patterns (synthon-search SMARTS prefilters) and GET /license_key (this installation). */
import { Type } from '@sinclair/typebox';
import type { App } from '../../types.ts';
import type { InstallationService } from '../../services/installation.ts';
import { TAGS } from './analysis-params.ts';

/** The installation routes. */
export function registerInstallationRoutes(app: App, installation: InstallationService): void {
  app.get(
    '/smarts_patterns',
    {
      schema: {
        tags: TAGS.other,
        summary: 'SMARTS patterns available as prefilters for synthon search (RDKit functional groups)',
        response: {
          200: Type.Array(
            Type.Object({
              id: Type.String(),
              label: Type.String(),
              group: Type.String(),
              smarts: Type.String(),
            }),
            {
              examples: [
                [{ id: 'fg_002', label: 'carboxylic acids', group: '-C(=O)O', smarts: '*-C(=O)[O;D1]' }],
              ],
            },
          ),
        },
      },
    },
    async () => installation.smartsPatterns(),
  );
  app.get(
    '/license_key',
    {
      schema: {
        tags: TAGS.other,
        summary: "This installation's licence identity (MIT: no licence is needed)",
        response: {
          200: Type.Object(
            {
              license_key: Type.String(),
              license: Type.String(),
              licensed: Type.Boolean(),
              expires_at: Type.Null(),
              account_type: Type.String({ description: "The caller's tier" }),
            },
            {
              examples: [
                {
                  license_key: 'msl_3f2a9c0d1e4b5a6978c0d1e2f3a4b5c6',
                  license: 'MIT',
                  licensed: true,
                  expires_at: null,
                  account_type: 'academia',
                },
              ],
            },
          ),
        },
      },
    },
    async (request) => installation.licenseKey(request.account.tier),
  );
}
