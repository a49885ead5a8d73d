// Typed GraphQL operations from the committed SDL: a schema change that breaks a page fails the build.
import type { CodegenConfig } from '@graphql-codegen/cli';

const config: CodegenConfig = {
  schema: '../docs/schema.graphql',
  documents: ['src/**/*.{ts,tsx}', '!src/gql/**/*'],
  ignoreNoDocuments: false,
  generates: {
    './src/gql/': {
      preset: 'client',
      presetConfig: { fragmentMasking: false },
      config: {
        enumType: 'const', // enums as values too: the format choices are read from OutputFormat
        useTypeImports: true,
        scalars: { JSON: 'unknown', DateTime: 'string' },
      },
    },
  },
};

export default config;
