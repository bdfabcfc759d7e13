import { stringify } from 'yaml';
import type { PatchgateConfigInput } from './schema.js';

export type ConfigFormat = 'json' | 'yaml' | 'ts';

export const CONFIG_FILE_FOR: Record<ConfigFormat, string> = {
  json: 'patchgate.config.json',
  yaml: 'patchgate.config.yaml',
  ts: 'patchgate.config.ts',
};

/** The text `init` writes: the same settings in whichever format the user picked. */
export function renderConfig(config: PatchgateConfigInput, format: ConfigFormat): string {
  switch (format) {
    case 'json':
      return `${JSON.stringify({ $schema: './node_modules/patchgate/schema/patchgate.config.schema.json', ...config }, null, 2)}\n`;
    case 'yaml':
      return `# yaml-language-server: $schema=./node_modules/patchgate/schema/patchgate.config.schema.json\n${stringify(config)}`;
    case 'ts':
      return `import { defineConfig } from 'patchgate';\n\nexport default defineConfig(${JSON.stringify(config, null, 2)});\n`;
  }
}
