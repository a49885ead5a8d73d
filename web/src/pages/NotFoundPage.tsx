import { Button, Stack, Text } from '@mantine/core';
import { Link } from 'react-router';
import { PageTitle } from '../components/PageTitle';

export default function NotFoundPage() {
  return (
    <Stack align="flex-start">
      <PageTitle>Page not found</PageTitle>
      <Text>There is nothing at this address, or you do not have access to it.</Text>
      <Button component={Link} to="/">Go to Dashboard</Button>
    </Stack>
  );
}
