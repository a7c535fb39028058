import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ErrorResponseDto } from '../common/dto/error-response.dto';
import { Public } from './auth.decorators';
import { AuthService } from './auth.service';
import { LoginDto, TokenResponseDto } from './dto/login.dto';

@ApiTags('Auth')
@Controller('auth')
export class AuthController {
  constructor(private readonly auth: AuthService) {}

  @Post('login')
  @Public()
  @HttpCode(200)
  @ApiOperation({ summary: 'Exchange email and password for a JWT', description: 'Limited per client IP (30/min) and to 10 failures per email per 15 minutes.' })
  @ApiOkResponse({ type: TokenResponseDto })
  @ApiResponse({ status: 400, type: ErrorResponseDto, description: 'validation_failed' })
  @ApiResponse({ status: 401, type: ErrorResponseDto, description: 'invalid_credentials — unknown email or wrong password (same answer for both)' })
  login(@Body() dto: LoginDto): Promise<TokenResponseDto> {
    return this.auth.login(dto.email, dto.password);
  }
}
