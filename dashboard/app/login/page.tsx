import type { Metadata } from 'next';
import { LoginForm } from '../../components/login-form.tsx';

export const metadata: Metadata = { title: 'Log in · edgeward status' };

export default function LoginPage() {
  return <LoginForm />;
}
